// Dense linear-algebra kernels on row-major matrices (OpenBLAS/LAPACK, or plain loops without
// BLAS): the one place operators call gemm, trsm, syrk, Cholesky, LU inverse and determinant.
#ifndef MXNET_OPERATOR_TENSOR_LINALG_H_
#define MXNET_OPERATOR_TENSOR_LINALG_H_

#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace linalg {

/*! \brief A row-major matrix view: element (i, j) is data[i * ld + j]. */
template <typename DType>
struct Mat {
  DType* data;
  index_t rows;
  index_t cols;
  index_t ld;
};

/*! \brief C = alpha * op(A) * op(B) + beta * C, op(X) = X^T when the flag is set.
 *  With beta == 0, C is not read (may hold NaN). Defined for float and double. */
template <typename DType>
void Gemm(bool trans_a, bool trans_b, DType alpha, const Mat<const DType>& A,
          const Mat<const DType>& B, DType beta, const Mat<DType>& C);

/*! \brief Solves op(A) X = alpha B (left) or X op(A) = alpha B (right) in place of B, with A
 *  triangular (lower or upper; the other triangle is not read). */
template <typename DType>
void Trsm(bool rightside, bool lower, bool trans, DType alpha, const Mat<const DType>& A,
          const Mat<DType>& B);

/*! \brief B = alpha * op(A) * B (left) or alpha * B * op(A) (right) in place, A triangular. */
template <typename DType>
void Trmm(bool rightside, bool lower, bool trans, DType alpha, const Mat<const DType>& A,
          const Mat<DType>& B);

/*! \brief C = alpha * A * A^T (or alpha * A^T * A when trans), full symmetric result. */
template <typename DType>
void Syrk(bool trans, DType alpha, const Mat<const DType>& A, const Mat<DType>& C);

/*! \brief In-place Cholesky factor of the lower triangle of A (n x n): on success A holds L
 *  (upper triangle zeroed) and the result is 0; otherwise the order of the first non-positive
 *  leading minor. */
template <typename DType>
int Cholesky(const Mat<DType>& A);

/*! \brief In-place inverse of A (n x n). work must hold WorkSize(n) elements and ipiv n ints.
 *  Returns 0, or i > 0 when U(i, i) is exactly zero (singular). */
template <typename DType>
int Inverse(const Mat<DType>& A, int* ipiv, DType* work);
/*! \brief Elements of scratch Inverse needs for an n x n matrix. */
index_t InverseWorkSize(index_t n);

/*! \brief In-place LU factorisation with partial pivoting (LAPACK getrf on the transpose):
 *  det(A) = prod_i A(i, i) * (-1)^(number of i with ipiv[i] != i + 1). ipiv holds n ints.
 *  Returns 0, or i > 0 when U(i, i) is exactly zero. */
template <typename DType>
int LU(const Mat<DType>& A, int* ipiv);

/*! \brief sum_i x[i] * y[i] in DType. */
template <typename DType>
DType Dot(index_t n, const DType* x, const DType* y);

}  // namespace linalg

/*! \brief A tensor seen as a batch of matrices: rows on axis row_axis, columns on the last axis,
 *  every other axis a batch axis. Matrix b lives at Offset(b) with leading dimension ld. */
struct MatrixBatch {
  index_t outer{1};  // product of the axes before row_axis
  index_t inner{1};  // product of the axes between row_axis and the last axis
  index_t rows{0};
  index_t cols{0};
  index_t ld{0};
  MatrixBatch() = default;
  MatrixBatch(const TShape& s, int row_axis) {
    const int nd = s.ndim();
    outer = static_cast<index_t>(s.ProdShape(0, row_axis));
    inner = static_cast<index_t>(s.ProdShape(row_axis + 1, nd - 1));
    rows = s[row_axis];
    cols = s[nd - 1];
    ld = inner * cols;
  }
  /*! \brief Trailing two axes are the matrix, the rest batch. */
  static MatrixBatch Trailing(const TShape& s) { return MatrixBatch(s, s.ndim() - 2); }
  index_t count() const { return outer * inner; }
  index_t Offset(index_t b) const {
    return (b / inner) * rows * inner * cols + (b % inner) * cols;
  }
  template <typename DType>
  linalg::Mat<DType> At(DType* base, index_t b) const {
    return {base + Offset(b), rows, cols, ld};
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_LINALG_H_
