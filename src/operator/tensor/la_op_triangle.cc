// Linalg helpers on the diagonals and triangles of square matrices (MXNet 1.9.1):
// _linalg_extractdiag / _linalg_makediag, _linalg_extracttrian / _linalg_maketrian,
// _linalg_sumlogdiag, and _linalg_potri (the inverse from a Cholesky factor).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operator/tensor/la_op_common.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {

struct LaDiagParam : public dmlc::Parameter<LaDiagParam> {
  int offset;
  DMLC_DECLARE_PARAMETER(LaDiagParam) {
    DMLC_DECLARE_FIELD(offset).set_default(0).describe(
        "Offset of the diagonal versus the main diagonal. 0 corresponds to the main diagonal, "
        "a negative/positive value to diagonals below/above the main diagonal.");
  }
};
DMLC_REGISTER_PARAMETER(LaDiagParam);

struct LaTrianParam : public dmlc::Parameter<LaTrianParam> {
  int offset;
  bool lower;
  DMLC_DECLARE_PARAMETER(LaTrianParam) {
    DMLC_DECLARE_FIELD(offset).set_default(0).describe(
        "Offset of the diagonal versus the main diagonal. 0 corresponds to the main diagonal, "
        "a negative/positive value to diagonals below/above the main diagonal.");
    DMLC_DECLARE_FIELD(lower).set_default(true).describe(
        "Refer to the lower triangular matrix if lower=true, refer to the upper otherwise. "
        "Only relevant when offset=0");
  }
};
DMLC_REGISTER_PARAMETER(LaTrianParam);

struct LaPotriParam : public dmlc::Parameter<LaPotriParam> {
  bool lower;
  DMLC_DECLARE_PARAMETER(LaPotriParam) {
    DMLC_DECLARE_FIELD(lower).set_default(true).describe(
        "True if the triangular matrix is lower triangular, false if it is upper triangular.");
  }
};
DMLC_REGISTER_PARAMETER(LaPotriParam);

namespace {

// The (row, col) positions an op reads or writes in an n x n matrix, in packed order:
// the diagonal `offset`, or the triangle on and below (lower) / above (upper) it, row by row.
enum class Part { kDiag, kLower, kUpper };

Part PartOf(const NodeAttrs& attrs, bool trian) {
  if (!trian) return Part::kDiag;
  const LaTrianParam& p = Param<LaTrianParam>(attrs);
  return p.offset < 0 || (p.offset == 0 && p.lower) ? Part::kLower : Part::kUpper;
}

int OffsetOf(const NodeAttrs& attrs, bool trian) {
  return trian ? Param<LaTrianParam>(attrs).offset : Param<LaDiagParam>(attrs).offset;
}

std::vector<std::pair<index_t, index_t>> Positions(index_t n, int offset, Part part) {
  std::vector<std::pair<index_t, index_t>> v;
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) {
      const bool take = part == Part::kDiag ? j - i == offset
                        : part == Part::kLower ? j - i <= offset : j - i >= offset;
      if (take) v.emplace_back(i, j);
    }
  }
  return v;
}

// Packed length of the part for an n x n matrix.
index_t PackedLength(index_t n, int offset, Part part) {
  const index_t s = n - std::abs(offset);
  return part == Part::kDiag ? s : s * (s + 1) / 2;
}

template <bool kTrian>
bool ExtractShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  const index_t n = a[a.ndim() - 1];
  const int offset = OffsetOf(attrs, kTrian);
  CHECK_LT(std::abs(offset), n) << "Operator " << attrs.op->name << ": argument offset "
                                << offset << " is outside the " << n << "x" << n << " matrices";
  std::vector<dim_t> o(a.begin(), a.end() - 2);
  o.push_back(PackedLength(n, offset, PartOf(attrs, kTrian)));
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

template <bool kTrian>
bool MakeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& v = (*in)[0];
  if (!v.IsKnown()) return false;
  CHECK_GE(v.ndim(), 1) << "Operator " << attrs.op->name << ": input A must have at least 1 "
                        << "dimension, given shape " << v;
  const int k = std::abs(OffsetOf(attrs, kTrian));
  const index_t m = v[v.ndim() - 1];
  index_t s = m;
  if (kTrian) {
    s = static_cast<index_t>(std::floor((std::sqrt(8.0 * m + 1.0) - 1.0) / 2.0 + 0.5));
    CHECK_EQ(s * (s + 1) / 2, m) << "Operator " << attrs.op->name << ": input A's last "
                                 << "dimension " << m << " is not a triangular number";
  }
  std::vector<dim_t> o(v.begin(), v.end() - 1);
  o.push_back(s + k);
  o.push_back(s + k);
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

// Copies between the part of each matrix and its packed vector (extract: matrix -> vector;
// make: vector -> zeroed matrix).
template <bool kTrian, bool kExtract>
void PartCopy(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& mat = kExtract ? in[0] : out[0];
  const TBlob& vec = kExtract ? out[0] : in[0];
  const index_t n = mat.shape_[mat.ndim() - 1];
  const auto pos = Positions(n, OffsetOf(attrs, kTrian), PartOf(attrs, kTrian));
  const index_t len = static_cast<index_t>(pos.size());
  const index_t batch = static_cast<index_t>(vec.Size()) / (len > 0 ? len : 1);
  MXNET_TYPE_SWITCH(mat.type_flag_, DType, {
    DType* m = mat.dptr<DType>();
    DType* v = vec.dptr<DType>();
    if (!kExtract && req[0] == kWriteTo) std::fill(m, m + mat.Size(), DType(0));
    ParallelFor(batch, [&](index_t b) {
      for (index_t p = 0; p < len; ++p) {
        DType* e = m + b * n * n + pos[p].first * n + pos[p].second;
        if (kExtract) {
          Assign(v + b * len + p, req[0], *e);
        } else {
          Assign(e, req[0], v[b * len + p]);
        }
      }
    });
  });
}

// extract and make are each other's adjoint: the gradient is the other op, same attributes.
template <bool kTrian, bool kExtract>
std::vector<NodeEntry> PartGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const char* other = kTrian ? (kExtract ? "_linalg_maketrian" : "_linalg_extracttrian")
                             : (kExtract ? "_linalg_makediag" : "_linalg_extractdiag");
  return {GradNode(n, other, {og[0]}, n->attrs.dict)};
}

// ------------------------------------------------------------------------------ sumlogdiag
bool SumLogDiagShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  AssignShape(attrs, "output", &(*out)[0], PerMatrixShape(a));
  return true;
}

void SumLogDiagForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(in[0].type_flag_, DType, {
    MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_);
    const DType* a = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    for (index_t b = 0; b < ba.count(); ++b) {
      linalg::Mat<const DType> m = ba.At(a, b);
      DType s = 0;
      for (index_t i = 0; i < m.rows; ++i) s += std::log(m.data[i * m.ld + i]);
      Assign(o + b, req[0], s);
    }
  });
}

// d/dA sum log A_ii = diag(1 / A_ii) scaled by each matrix's output gradient.
void SumLogDiagBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(in[1].type_flag_, DType, {
    MatrixBatch ba = MatrixBatch::Trailing(in[1].shape_);
    const DType* g = in[0].dptr<DType>();
    const DType* a = in[1].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    if (req[0] == kWriteTo) std::fill(d, d + out[0].Size(), DType(0));
    for (index_t b = 0; b < ba.count(); ++b) {
      linalg::Mat<const DType> m = ba.At(a, b);
      linalg::Mat<DType> dm = ba.At(d, b);
      for (index_t i = 0; i < m.rows; ++i) {
        Assign(dm.data + i * dm.ld + i, req[0], DType(g[b] / m.data[i * m.ld + i]));
      }
    }
  });
}

std::vector<NodeEntry> SumLogDiagGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "_backward_linalg_sumlogdiag", {og[0], n->inputs[0]})};
}

// ----------------------------------------------------------------------------------- potri
// out = (L L^T)^-1 (lower) or (U^T U)^-1 (upper), from the triangle of A alone.
void PotriForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool lower = Param<LaPotriParam>(attrs).lower;
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t total = out[0].Size();
    MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_);
    const index_t k = ba.rows;
    Scratch s(ctx, Scratch::Bytes(k, sizeof(int)) +
                       Scratch::Bytes(linalg::InverseWorkSize(k), sizeof(DType)) +
                       Scratch::Bytes(k * k, sizeof(DType)) +
                       (req[0] == kAddTo ? Scratch::Bytes(total, sizeof(DType)) : 0));
    int* ipiv = s.Take<int>(k);
    DType* work = s.Take<DType>(linalg::InverseWorkSize(k));
    DType* tri = s.Take<DType>(k * k);
    DType* tmp = req[0] == kAddTo ? s.Take<DType>(total) : nullptr;
    WriteOutput<DType>(out[0], req[0], tmp, [&](DType* o) {
      for (index_t b = 0; b < ba.count(); ++b) {
        const linalg::Mat<DType> a = ba.At(in[0].dptr<DType>(), b);
        for (index_t i = 0; i < k; ++i) {
          for (index_t j = 0; j < k; ++j) {
            const bool keep = lower ? j <= i : j >= i;
            tri[i * k + j] = keep ? a.data[i * a.ld + j] : DType(0);
          }
        }
        linalg::Mat<const DType> t{tri, k, k, k};
        linalg::Mat<DType> r = ba.At(o, b);
        linalg::Gemm<DType>(!lower, lower, DType(1), t, t, DType(0), r);
        const int info = linalg::Inverse<DType>(r, ipiv, work);
        CHECK_EQ(info, 0) << "Operator " << attrs.op->name << ": matrix " << b
                          << " of input A has a zero on its diagonal";
      }
    });
  });
}

// C = (L L^T)^-1: dL = tril(-(M + M^T) L) with M = C dC C; for U (C = (U^T U)^-1):
// dU = triu(-U (M + M^T)).
std::vector<NodeEntry> PotriGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const bool lower = Param<LaPotriParam>(n->attrs).lower;
  const std::string name = n->attrs.name + "_backward";
  auto gemm2 = [&](NodeEntry a, NodeEntry b, bool ta, bool tb, double alpha) {
    return MakeNode("_linalg_gemm2", name, {a, b},
                    {{"transpose_a", BoolText(ta)}, {"transpose_b", BoolText(tb)},
                     {"alpha", ScalarText(alpha)}});
  };
  const char* mode = lower ? "lower" : "upper";
  NodeEntry C = Out(n);
  NodeEntry T = MakeNode("_linalg_triangle", name, {n->inputs[0]}, {{"mode", mode}});
  NodeEntry M = gemm2(gemm2(C, og[0], false, false, 1.0), C, false, false, 1.0);
  NodeEntry p1 = lower ? gemm2(M, T, false, false, -1.0) : gemm2(T, M, false, false, -1.0);
  NodeEntry p2 = lower ? gemm2(M, T, true, false, -1.0) : gemm2(T, M, false, true, -1.0);
  NodeEntry sum = MakeNode("elemwise_add", name, {p1, p2});
  return {MakeNode("_linalg_triangle", name, {sum}, {{"mode", mode}})};
}

bool SquareOutShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  AssignShape(attrs, "output", &(*out)[0], a);
  return true;
}

nnvm::Op& RegisterPart(const char* name, bool trian) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("A", "NDArray-or-Symbol", "Tensor of square matrices")
      .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
      .set_attr<FInferType>("FInferType", ElemwiseType);
  if (trian) {
    op.set_attr_parser(ParamParser<LaTrianParam>).add_arguments(LaTrianParam::__FIELDS__());
  } else {
    op.set_attr_parser(ParamParser<LaDiagParam>).add_arguments(LaDiagParam::__FIELDS__());
  }
  return op;
}

}  // namespace

static nnvm::Op& kOp_linalg_extractdiag [[maybe_unused]] = RegisterPart("_linalg_extractdiag", false)
    .add_alias("linalg_extractdiag")
    .describe("Extracts the diagonal entries of a square matrix (the diagonal `offset` of the "
              "trailing two axes; the leading axes are a batch).")
    .set_attr<FInferShape>("FInferShape", ExtractShape<false>)
    .set_attr<FCompute>("FCompute<cpu>", PartCopy<false, true>)
    .set_attr<FGradient>("FGradient", PartGrad<false, true>);

static nnvm::Op& kOp_linalg_makediag [[maybe_unused]] = RegisterPart("_linalg_makediag", false)
    .add_alias("linalg_makediag")
    .describe("Constructs a square matrix with the input as diagonal `offset` (zeros elsewhere; "
              "the leading axes are a batch).")
    .set_attr<FInferShape>("FInferShape", MakeShape<false>)
    .set_attr<FCompute>("FCompute<cpu>", PartCopy<false, false>)
    .set_attr<FGradient>("FGradient", PartGrad<false, false>);

static nnvm::Op& kOp_linalg_extracttrian [[maybe_unused]] = RegisterPart("_linalg_extracttrian", true)
    .add_alias("linalg_extracttrian")
    .describe("Extracts a triangular sub-matrix from a square matrix into a packed vector: "
              "offset < 0 (or 0 with lower) the triangle on and below diagonal `offset`, else "
              "the one on and above it.")
    .set_attr<FInferShape>("FInferShape", ExtractShape<true>)
    .set_attr<FCompute>("FCompute<cpu>", PartCopy<true, true>)
    .set_attr<FGradient>("FGradient", PartGrad<true, true>);

static nnvm::Op& kOp_linalg_maketrian [[maybe_unused]] = RegisterPart("_linalg_maketrian", true)
    .add_alias("linalg_maketrian")
    .describe("Constructs a square matrix from the packed triangle extracttrian gives (zeros "
              "elsewhere).")
    .set_attr<FInferShape>("FInferShape", MakeShape<true>)
    .set_attr<FCompute>("FCompute<cpu>", PartCopy<true, false>)
    .set_attr<FGradient>("FGradient", PartGrad<true, false>);


NNVM_REGISTER_OP(_linalg_sumlogdiag)
    .add_alias("linalg_sumlogdiag")
    .describe("Computes the sum of the logarithms of the diagonal elements of a square matrix "
              "(per matrix of the batch). float32 and float64 only.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of square matrices")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", SumLogDiagShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FCompute>("FCompute<cpu>", SumLogDiagForward)
    .set_attr<FGradient>("FGradient", SumLogDiagGrad);

NNVM_REGISTER_OP(_backward_linalg_sumlogdiag)
    .describe("Gradient of _linalg_sumlogdiag: (ograd, A) -> dA.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<FInferShape>("FInferShape", OutputLikeInputShape(1))
    .set_attr<FInferType>("FInferType", OutputLikeInputType(1))
    .set_attr<FCompute>("FCompute<cpu>", SumLogDiagBackward);

NNVM_REGISTER_OP(_linalg_potri)
    .add_alias("linalg_potri")
    .describe("Performs matrix inversion from a Cholesky factorization: out = (A A^T)^-1 for "
              "a lower triangular A (A^T A for an upper one); only that triangle of A is read. "
              "float32 and float64 only.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaPotriParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of lower triangular matrices")
    .add_arguments(LaPotriParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", SquareOutShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", PotriForward)
    .set_attr<FGradient>("FGradient", PotriGrad);

}  // namespace op
}  // namespace mxnet
