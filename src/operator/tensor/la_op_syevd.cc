// _linalg_syevd: eigendecomposition of symmetric matrices, U A = diag(L) U with U's rows the
// orthonormal eigenvectors and L ascending (MXNet 1.9.1), by cyclic Jacobi rotations in
// double; each row of U is signed so that its largest-magnitude entry is positive.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "operator/tensor/la_op_common.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

bool SyevdShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  AssignShape(attrs, "U", &(*out)[0], a);
  AssignShape(attrs, "L", &(*out)[1], TShape(a.begin(), a.end() - 1));
  return true;
}

// a (n x n, row-major, symmetric) -> eigenvalues w ascending and eigenvectors as rows of u.
void JacobiEigen(index_t n, std::vector<double> a, std::vector<double>* w,
                 std::vector<double>* u) {
  std::vector<double> v(n * n, 0.0);
  for (index_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (index_t i = 0; i < n; ++i) {
      for (index_t j = 0; j < n; ++j) {
        total += a[i * n + j] * a[i * n + j];
        if (i != j) off += a[i * n + j] * a[i * n + j];
      }
    }
    if (off <= 1e-30 * total || off == 0) break;
    for (index_t p = 0; p < n; ++p) {
      for (index_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (index_t k = 0; k < n; ++k) {  // columns p, q of A J
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (index_t k = 0; k < n; ++k) {  // rows p, q of J^T (A J)
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (index_t k = 0; k < n; ++k) {
          const double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t x, index_t y) { return a[x * n + x] < a[y * n + y]; });
  w->assign(n, 0.0);
  u->assign(n * n, 0.0);
  for (index_t r = 0; r < n; ++r) {
    const index_t c = order[r];
    (*w)[r] = a[c * n + c];
    index_t big = 0;
    for (index_t k = 0; k < n; ++k) {
      (*u)[r * n + k] = v[k * n + c];
      if (std::fabs(v[k * n + c]) > std::fabs(v[big * n + c])) big = k;
    }
    if (v[big * n + c] < 0) {
      for (index_t k = 0; k < n; ++k) (*u)[r * n + k] = -(*u)[r * n + k];
    }
  }
}

void SyevdForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(in[0].type_flag_, DType, {
    MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_);
    const index_t n = ba.rows;
    std::vector<double> a(n * n), w, u;
    for (index_t b = 0; b < ba.count(); ++b) {
      const DType* src = in[0].dptr<DType>() + ba.Offset(b);
      for (index_t i = 0; i < n; ++i) {
        for (index_t j = 0; j < n; ++j) a[i * n + j] = static_cast<double>(src[i * ba.ld + j]);
      }
      JacobiEigen(n, a, &w, &u);
      DType* uo = out[0].dptr<DType>() + ba.Offset(b);
      DType* lo = out[1].dptr<DType>() + b * n;
      for (index_t i = 0; i < n; ++i) {
        Assign(lo + i, req[1], DType(w[i]));
        for (index_t j = 0; j < n; ++j) Assign(uo + i * ba.ld + j, req[0], DType(u[i * n + j]));
      }
    }
  });
}

// (dU, dL, U, L) -> dA = U^T Y U, Y = dL on the diagonal and, off it,
// (X_ij - X_ji) / (2 max(L_i - L_j, eps)) for i > j (mirrored), with X = dU U^T.
void SyevdBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(in[2].type_flag_, DType, {
    MatrixBatch ba = MatrixBatch::Trailing(in[2].shape_);
    const index_t n = ba.rows;
    const double eps = sizeof(DType) == 4 ? 1e-30 : 1e-100;
    std::vector<double> x(n * n), y(n * n), t(n * n);
    for (index_t b = 0; b < ba.count(); ++b) {
      const DType* du = in[0].dptr<DType>() + ba.Offset(b);
      const DType* dl = in[1].dptr<DType>() + b * n;
      const DType* u = in[2].dptr<DType>() + ba.Offset(b);
      const DType* l = in[3].dptr<DType>() + b * n;
      auto U = [&](index_t i, index_t j) { return static_cast<double>(u[i * ba.ld + j]); };
      for (index_t i = 0; i < n; ++i) {
        for (index_t j = 0; j < n; ++j) {
          double s = 0;
          for (index_t k = 0; k < n; ++k) s += static_cast<double>(du[i * ba.ld + k]) * U(j, k);
          x[i * n + j] = s;
        }
      }
      for (index_t i = 0; i < n; ++i) {
        y[i * n + i] = static_cast<double>(dl[i]);
        for (index_t j = 0; j < i; ++j) {
          double denom = static_cast<double>(l[i]) - static_cast<double>(l[j]);
          if (denom < eps) denom = eps;
          y[i * n + j] = y[j * n + i] = (x[i * n + j] - x[j * n + i]) / (2 * denom);
        }
      }
      for (index_t i = 0; i < n; ++i) {  // t = U^T Y
        for (index_t j = 0; j < n; ++j) {
          double s = 0;
          for (index_t k = 0; k < n; ++k) s += U(k, i) * y[k * n + j];
          t[i * n + j] = s;
        }
      }
      DType* da = out[0].dptr<DType>() + ba.Offset(b);
      for (index_t i = 0; i < n; ++i) {  // dA = t U
        for (index_t j = 0; j < n; ++j) {
          double s = 0;
          for (index_t k = 0; k < n; ++k) s += t[i * n + k] * U(k, j);
          Assign(da + i * ba.ld + j, req[0], DType(s));
        }
      }
    }
  });
}

std::vector<NodeEntry> SyevdGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "_backward_linalg_syevd", {og[0], og[1], Out(n, 0), Out(n, 1)})};
}

}  // namespace

NNVM_REGISTER_OP(_linalg_syevd)
    .add_alias("linalg_syevd")
    .describe(R"doc(Eigendecomposition for symmetric matrix: for each (x, x) matrix A of the
batch, U * A = diag(L) * U with U orthonormal (rows the eigenvectors, each signed so that its
largest-magnitude entry is positive) and L ascending. Outputs (U, L). Gradients need distinct
eigenvalues. float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of input matrices to be factorized")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FListOutputNames>("FListOutputNames", [](const NodeAttrs&) {
      return std::vector<std::string>{"U", "L"};
    })
    .set_attr<FInferShape>("FInferShape", SyevdShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FCompute>("FCompute<cpu>", SyevdForward)
    .set_attr<FGradient>("FGradient", SyevdGrad);

NNVM_REGISTER_OP(_backward_linalg_syevd)
    .describe("Gradient of _linalg_syevd: (dU, dL, U, L) -> dA.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .set_attr<FInferShape>("FInferShape", OutputLikeInputShape(2))
    .set_attr<FInferType>("FInferType", OutputLikeInputType(2))
    .set_attr<FCompute>("FCompute<cpu>", SyevdBackward);

}  // namespace op
}  // namespace mxnet
