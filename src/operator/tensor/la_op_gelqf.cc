// _linalg_gelqf: the LQ factorization A = L * Q of each (m x n, m <= n) matrix of a batch,
// Q with orthonormal rows and L lower triangular with a positive diagonal (MXNet 1.9.1).
#include <cmath>
#include <string>
#include <vector>

#include "operator/tensor/la_op_common.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

bool GelqfShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, false);
  const dim_t m = a[a.ndim() - 2], n = a[a.ndim() - 1];
  CHECK_LE(m, n) << "Operator " << attrs.op->name << ": input A's matrices need at most as many "
                 << "rows as columns, given shape " << a;
  std::vector<dim_t> l(a.begin(), a.end() - 1);
  l.push_back(m);
  AssignShape(attrs, "Q", &(*out)[0], a);
  AssignShape(attrs, "L", &(*out)[1], ShapeOf(l));
  return true;
}

// Row i of Q is row i of A minus its projections on the rows before (modified Gram-Schmidt,
// twice for orthogonality), normalised; L holds the projections and norms. Sums in double.
void GelqfForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(in[0].type_flag_, DType, {
    MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_);
    MatrixBatch bl = MatrixBatch::Trailing(out[1].shape_);
    const index_t m = ba.rows, n = ba.cols;
    std::vector<double> q(m * n), l(m * m);
    for (index_t b = 0; b < ba.count(); ++b) {
      const DType* a = in[0].dptr<DType>() + ba.Offset(b);
      std::fill(l.begin(), l.end(), 0.0);
      for (index_t i = 0; i < m; ++i) {
        double* v = &q[i * n];
        for (index_t k = 0; k < n; ++k) v[k] = static_cast<double>(a[i * ba.ld + k]);
        for (int pass = 0; pass < 2; ++pass) {
          for (index_t j = 0; j < i; ++j) {
            const double* u = &q[j * n];
            double d = 0;
            for (index_t k = 0; k < n; ++k) d += u[k] * v[k];
            for (index_t k = 0; k < n; ++k) v[k] -= d * u[k];
            l[i * m + j] += d;
          }
        }
        double norm = 0;
        for (index_t k = 0; k < n; ++k) norm += v[k] * v[k];
        norm = std::sqrt(norm);
        CHECK_GT(norm, 0.0) << "Operator " << attrs.op->name << ": matrix " << b
                            << " of input A does not have full row rank";
        for (index_t k = 0; k < n; ++k) v[k] /= norm;
        l[i * m + i] = norm;
      }
      DType* qo = out[0].dptr<DType>() + ba.Offset(b);
      DType* lo = out[1].dptr<DType>() + bl.Offset(b);
      for (index_t i = 0; i < m; ++i) {
        for (index_t k = 0; k < n; ++k) Assign(qo + i * ba.ld + k, req[0], DType(q[i * n + k]));
        for (index_t k = 0; k < m; ++k) Assign(lo + i * bl.ld + k, req[1], DType(l[i * m + k]));
      }
    }
  });
}

// With M = L^T dL - dQ Q^T: dA = L^-T (dQ + symmetrize_lower(M) Q).
std::vector<NodeEntry> GelqfGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  NodeEntry Q = Out(n, 0), L = Out(n, 1);
  auto gemm2 = [&](NodeEntry a, NodeEntry b, bool ta, bool tb, double alpha) {
    return MakeNode("_linalg_gemm2", name, {a, b},
                    {{"transpose_a", BoolText(ta)}, {"transpose_b", BoolText(tb)},
                     {"alpha", ScalarText(alpha)}});
  };
  NodeEntry M = MakeNode("elemwise_add", name,
                         {gemm2(L, og[1], true, false, 1.0), gemm2(og[0], Q, false, true, -1.0)});
  NodeEntry S = MakeNode("_linalg_triangle", name, {M}, {{"mode", "symmetrize_lower"}});
  NodeEntry X = MakeNode("elemwise_add", name, {og[0], gemm2(S, Q, false, false, 1.0)});
  return {MakeNode("_linalg_trsm", name, {L, X},
                   {{"transpose", "True"}, {"rightside", "False"}, {"lower", "True"},
                    {"alpha", "1"}})};
}

}  // namespace

NNVM_REGISTER_OP(_linalg_gelqf)
    .add_alias("linalg_gelqf")
    .describe(R"doc(LQ factorization for general matrix: for each m x n matrix A (m <= n) of
the batch, A = L * Q with Q (m x n) having orthonormal rows and L (m x m) lower triangular
with a positive diagonal. Outputs (Q, L). float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of input matrices to be factorized")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FListOutputNames>("FListOutputNames", [](const NodeAttrs&) {
      return std::vector<std::string>{"Q", "L"};
    })
    .set_attr<FInferShape>("FInferShape", GelqfShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FCompute>("FCompute<cpu>", GelqfForward)
    .set_attr<FGradient>("FGradient", GelqfGrad);

}  // namespace op
}  // namespace mxnet
